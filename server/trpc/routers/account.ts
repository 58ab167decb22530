import { z } from "zod";
import { claimSetupToken } from "../../identity/users/setup-token";
import { signUp, ZSignUpInput } from "../../identity/users/sign-up";
import { myWorkspaces, ZMyWorkspace } from "../../identity/workspaces/my-workspaces";
import { accountProcedure, publicProcedure, router, sessionProcedure } from "../init";

export const accountRouter = router({
  /** Creates an account; the client then signs in through next-auth. */
  signUp: publicProcedure
    .meta({ scope: "account" })
    .input(ZSignUpInput)
    .output(z.object({ id: z.string(), email: z.string(), isOperator: z.boolean() }))
    .mutation(({ input }) => signUp(input)),
  /** The signed-in user and the workspaces they belong to. */
  me: sessionProcedure
    .output(z.object({ id: z.string(), email: z.string(), name: z.string().nullable(), isOperator: z.boolean(), workspaces: z.array(ZMyWorkspace) }))
    .query(async ({ ctx }) => ({ ...ctx.user, workspaces: await myWorkspaces(ctx.user.id) })),
  /** The one-time setup link `npm start` prints while the install has no operator: its opener becomes one. */
  claimSetup: accountProcedure
    .input(z.object({ token: z.string().min(1).max(200) }))
    .output(z.object({ isOperator: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await claimSetupToken(ctx.user.id, input.token);
      return { isOperator: true as const };
    }),
});
