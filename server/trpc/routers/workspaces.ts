import { router } from "../init";

export const workspacesRouter = router({});
