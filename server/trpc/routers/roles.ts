// (filled by the roles work)
import { router } from "../init";

export const rolesRouter = router({});
