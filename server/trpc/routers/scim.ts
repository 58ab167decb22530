// (filled by the scim work)
import { router } from "../init";

export const scimRouter = router({});
