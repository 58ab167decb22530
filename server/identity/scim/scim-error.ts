// A refusal in SCIM's own terms (RFC 7644 §3.12): an HTTP status and, for a 400 or 409, the
// `scimType` an identity provider's client reads to tell a bad filter from a duplicate. The SCIM
// host (transport/next/scim-errors.ts) answers it in the Error schema.
export type ScimType =
  | "invalidFilter"
  | "tooMany"
  | "uniqueness"
  | "mutability"
  | "invalidSyntax"
  | "invalidPath"
  | "noTarget"
  | "invalidValue"
  | "invalidVers"
  | "sensitive";

export class ScimError extends Error {
  readonly status: number;
  readonly scimType: ScimType | null;

  constructor(status: number, detail: string, scimType: ScimType | null = null) {
    super(detail);
    this.name = "ScimError";
    this.status = status;
    this.scimType = scimType;
  }
}

export const scimErrors = {
  invalidValue: (detail: string) => new ScimError(400, detail, "invalidValue"),
  invalidSyntax: (detail: string) => new ScimError(400, detail, "invalidSyntax"),
  invalidFilter: (detail: string) => new ScimError(400, detail, "invalidFilter"),
  mutability: (detail: string) => new ScimError(400, detail, "mutability"),
  uniqueness: (detail: string) => new ScimError(409, detail, "uniqueness"),
  notFound: (what: "User" | "Group", id: string) => new ScimError(404, `No ${what} with id ${JSON.stringify(id)} in this workspace.`),
  unauthorized: (detail = "Missing, unknown or revoked SCIM token. Send `Authorization: Bearer <token>` with the workspace's current token.") =>
    new ScimError(401, detail),
};
