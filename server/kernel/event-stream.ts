/**
 * A stream of server-sent events a service returns; the HTTP layer writes it as it is produced.
 * Chat completions end with `data: [DONE]`; the responses API's events carry their type and end
 * with their terminal event, without [DONE].
 */
export class EventStream {
  constructor(
    readonly events: AsyncIterable<string>,
    readonly options: { named: boolean; done: boolean },
  ) {}
}
