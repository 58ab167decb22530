import { router } from "../init";

export const billingRouter = router({});
