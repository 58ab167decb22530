import { router } from "../init";

export const nodesRouter = router({});
