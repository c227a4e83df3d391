import type { Anthropic } from '@anthropic-ai/sdk';

type StreamEvent = Anthropic.Messages.RawMessageStreamEvent;
type BetaStreamEvent = Anthropic.Beta.Messages.BetaRawMessageStreamEvent;

/** What the SDK's `Stream` offers that `MessageStream` reads: the events and the abort controller. */
export interface EventStream<E = StreamEvent> extends AsyncIterable<E> {
  controller: AbortController;
}

/** The message an event stream describes: the Messages API's, or the beta API's. */
type MessageOf<E> = E extends BetaStreamEvent
  ? Anthropic.Beta.Messages.BetaMessage
  : Anthropic.Messages.Message;

/**
 * The same stream of events, passed through as they come, assembling the message they describe;
 * once `message_stop` arrived and the stream ended without being aborted, `onComplete` receives
 * the whole message and is awaited before the stream ends. A stream that breaks off before
 * `message_stop` (an error, an abort, a dropped connection) never calls it.
 *
 * @param events - The SDK's raw event stream (`messages.create({ stream: true })`).
 * @param onComplete - Called once with the complete message.
 * @returns An event stream for `MessageStream` to read.
 */
export function assembleStreamedMessage<E extends StreamEvent | BetaStreamEvent = StreamEvent>(
  events: EventStream<E>,
  onComplete: (message: MessageOf<E>) => Promise<void>,
): EventStream<E> {
  return {
    controller: events.controller,
    async *[Symbol.asyncIterator]() {
      // Typed as the beta message: its block and delta unions include the non-beta ones.
      let message: Anthropic.Beta.Messages.BetaMessage | undefined;
      const inputJson = new Map<number, string>();
      let stopped = false;
      for await (const streamed of events) {
        yield streamed;
        const event = streamed as BetaStreamEvent;
        switch (event.type) {
          case 'message_start':
            message = { ...event.message, content: [] };
            break;
          case 'content_block_start':
            if (message)
              message.content[event.index] = { ...event.content_block } as typeof event.content_block;
            break;
          case 'content_block_delta': {
            const block = message?.content[event.index];
            const delta = event.delta;
            if (!block) break;
            if (delta.type === 'text_delta' && block.type === 'text') block.text += delta.text;
            else if (delta.type === 'input_json_delta')
              inputJson.set(event.index, (inputJson.get(event.index) ?? '') + delta.partial_json);
            else if (delta.type === 'thinking_delta' && block.type === 'thinking')
              block.thinking += delta.thinking;
            else if (delta.type === 'signature_delta' && block.type === 'thinking')
              block.signature = delta.signature;
            else if (delta.type === 'compaction_delta' && block.type === 'compaction') {
              // The delta carries the block's final value (null content: a failed compaction).
              block.content = delta.content;
              if ('encrypted_content' in delta) block.encrypted_content = delta.encrypted_content;
            }
            break;
          }
          case 'content_block_stop': {
            const block = message?.content[event.index];
            const json = inputJson.get(event.index);
            if (block && 'input' in block && json !== undefined)
              block.input = json === '' ? {} : JSON.parse(json);
            break;
          }
          case 'message_delta':
            if (message) {
              message.stop_reason = event.delta.stop_reason;
              message.stop_sequence = event.delta.stop_sequence;
              message.usage = { ...message.usage, output_tokens: event.usage.output_tokens };
            }
            break;
          case 'message_stop':
            stopped = true;
            break;
        }
      }
      if (stopped && message && !events.controller.signal.aborted) await onComplete(message as MessageOf<E>);
    },
  };
}
