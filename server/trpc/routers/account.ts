import { z } from "zod";
import { signUp, ZSignUpInput } from "../../identity/users/sign-up";
import { myWorkspaces, ZMyWorkspace } from "../../identity/workspaces/my-workspaces";
import { publicProcedure, router, sessionProcedure } from "../init";

export const accountRouter = router({
  /** Creates an account; the client then signs in through next-auth. */
  signUp: publicProcedure
    .input(ZSignUpInput)
    .output(z.object({ id: z.string(), email: z.string(), isOperator: z.boolean() }))
    .mutation(({ input }) => signUp(input)),
  /** The signed-in user and the workspaces they belong to. */
  me: sessionProcedure
    .output(z.object({ id: z.string(), email: z.string(), name: z.string().nullable(), isOperator: z.boolean(), workspaces: z.array(ZMyWorkspace) }))
    .query(async ({ ctx }) => ({ ...ctx.user, workspaces: await myWorkspaces(ctx.user.id) })),
});
