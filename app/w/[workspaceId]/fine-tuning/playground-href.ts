// Where "Open in playground" leads: the playground picks the model named by ?model= among the
// chat models the workspace sees (its own fine-tuned models and checkpoints included).
export const playgroundHref = (workspaceId: string, model: string) => `/w/${workspaceId}/playground?model=${encodeURIComponent(model)}`;
