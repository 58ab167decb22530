// The /v1/conversations operations: conversations that keep items in order, for the responses API
// (`conversation` on POST /v1/responses) and for clients to read and edit. They call no model and cost nothing.
import { ZConversation, ZConversationDeleted, ZConversationItem, ZConversationItemList } from "../../inference/conversations/answer-schema";
import {
  addItems,
  createConversation,
  deleteConversation,
  getConversation,
  getItem,
  listItems,
  removeItem,
  updateConversation,
} from "../../inference/conversations/manage-conversations";
import { ZConversationCreate, ZConversationId, ZConversationUpdate, ZItemPath, ZItemsCreate, ZItemsQuery } from "../../inference/conversations/schema";
import { operation } from "../operation";

const common = { tags: ["Conversations"], tier: "api_key", permission: "text", pricing: { kind: "free" } } as const;
const ITEM_404 = { 404: "No such conversation (`conversation_not_found`) or no such item in it (`item_not_found`)." } as const;

const create = operation({
  ...common,
  id: "conversations.create",
  method: "POST",
  path: "/v1/conversations",
  summary: "Create a conversation, with up to 20 items",
  kind: "mutation",
  body: { kind: "json" },
  input: ZConversationCreate,
  output: ZConversation,
  produces: { kind: "json" },
  guarded: "items",
  handler: (ctx, input) => createConversation(ctx, input),
});

const get = operation({
  ...common,
  id: "conversations.get",
  method: "GET",
  path: "/v1/conversations/{conversation_id}",
  summary: "Retrieve a conversation",
  kind: "query",
  body: { kind: "none" },
  input: ZConversationId,
  output: ZConversation,
  produces: { kind: "json" },
  handler: (ctx, input) => getConversation(ctx.principal.workspaceId, input.conversation_id),
});

const update = operation({
  ...common,
  id: "conversations.update",
  method: "POST",
  path: "/v1/conversations/{conversation_id}",
  summary: "Replace a conversation's metadata",
  kind: "mutation",
  body: { kind: "json" },
  input: ZConversationUpdate,
  output: ZConversation,
  produces: { kind: "json" },
  handler: (ctx, input) => updateConversation(ctx.principal.workspaceId, input.conversation_id, input.metadata),
});

const remove = operation({
  ...common,
  id: "conversations.delete",
  method: "DELETE",
  path: "/v1/conversations/{conversation_id}",
  summary: "Delete a conversation and its items",
  kind: "mutation",
  body: { kind: "none" },
  input: ZConversationId,
  output: ZConversationDeleted,
  produces: { kind: "json" },
  handler: (ctx, input) => deleteConversation(ctx.principal.workspaceId, input.conversation_id),
});

const listItemsOp = operation({
  ...common,
  id: "conversations.listItems",
  method: "GET",
  path: "/v1/conversations/{conversation_id}/items",
  summary: "List a conversation's items (newest first unless `order=asc`; `after` an item id)",
  kind: "query",
  body: { kind: "none" },
  query: true,
  input: ZItemsQuery,
  output: ZConversationItemList,
  produces: { kind: "json" },
  handler: (ctx, input) => listItems(ctx.principal.workspaceId, input),
});

const createItems = operation({
  ...common,
  id: "conversations.createItems",
  method: "POST",
  path: "/v1/conversations/{conversation_id}/items",
  summary: "Add up to 20 items at the end of a conversation; answers the items added",
  kind: "mutation",
  body: { kind: "json" },
  input: ZItemsCreate,
  output: ZConversationItemList,
  produces: { kind: "json" },
  guarded: "items",
  handler: (ctx, input) => addItems(ctx.principal.workspaceId, input.conversation_id, input.items),
});

const getItemOp = operation({
  ...common,
  id: "conversations.getItem",
  method: "GET",
  path: "/v1/conversations/{conversation_id}/items/{item_id}",
  summary: "Retrieve an item of a conversation",
  kind: "query",
  body: { kind: "none" },
  input: ZItemPath,
  output: ZConversationItem,
  produces: { kind: "json" },
  errors: ITEM_404,
  handler: (ctx, input) => getItem(ctx.principal.workspaceId, input.conversation_id, input.item_id),
});

const deleteItemOp = operation({
  ...common,
  id: "conversations.deleteItem",
  method: "DELETE",
  path: "/v1/conversations/{conversation_id}/items/{item_id}",
  summary: "Delete an item of a conversation; answers the conversation",
  kind: "mutation",
  body: { kind: "none" },
  input: ZItemPath,
  output: ZConversation,
  produces: { kind: "json" },
  errors: ITEM_404,
  handler: (ctx, input) => removeItem(ctx.principal.workspaceId, input.conversation_id, input.item_id),
});

export const conversationsOperations = {
  create,
  get,
  update,
  delete: remove,
  listItems: listItemsOp,
  createItems,
  getItem: getItemOp,
  deleteItem: deleteItemOp,
} as const;
