// Entry of the training worker thread: registers tsx (the node runs from TypeScript sources),
// then loads the training loop.
import { register } from "tsx/esm/api";

register();
await import(new URL("./worker.ts", import.meta.url).href);
