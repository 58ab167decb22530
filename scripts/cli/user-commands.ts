// Users and operators: who has signed up, and who operates the gateway. Operators are made here,
// by OPERATOR_EMAILS, or by the one-time setup link `npm start` prints, never by signing up first.
import { listUsers, setOperator, type UserRow } from "../../server/identity/users/operators";
import { parse, type Command } from "./args";
import { table } from "./output";

const rows = (users: UserRow[]) => users.map((u) => ({ id: u.id, email: u.email ?? "", name: u.name ?? "", operator: u.isOperator ? "yes" : "", created: u.createdAt }));

function operatorCommand(operator: boolean): Command {
  return (argv) => {
    const { values, args } = parse(argv, {}, ["EMAIL"]);
    return async () => {
      const user = await setOperator(args[0]!, operator);
      const text = user.isOperator
        ? `${user.email} is an operator.${operator ? "" : " (still listed in OPERATOR_EMAILS)"}`
        : `${user.email} is not an operator any more.`;
      return { json: user, text, asJson: values.json };
    };
  };
}

export const userCommands: Record<string, Command> = {
  "user list": (argv) => {
    const { values } = parse(argv, {}, []);
    return async () => {
      const users = await listUsers();
      return { json: { users }, text: table(rows(users)), asJson: values.json };
    };
  },
  "user promote": operatorCommand(true),
  "user demote": operatorCommand(false),
};
