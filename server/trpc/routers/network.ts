import { networkStatus } from "../../network/network-status";
import { apiKeyProcedure, router } from "../init";

export const networkRouter = router({
  status: apiKeyProcedure.query(() => networkStatus()),
});
