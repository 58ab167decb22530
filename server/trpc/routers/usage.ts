import { router } from "../init";

export const usageRouter = router({});
