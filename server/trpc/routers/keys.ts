import { router } from "../init";

export const keysRouter = router({});
