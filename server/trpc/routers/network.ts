import { networkStatus } from "../../routing/nodes/network-status";
import { apiKeyProcedure, router } from "../init";

export const networkRouter = router({
  status: apiKeyProcedure.query(() => networkStatus()),
});
