// (filled by the sso work)
import { router } from "../init";

export const ssoRouter = router({});
