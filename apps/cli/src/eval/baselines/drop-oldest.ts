import { buildToolPairIndex, closeOverToolPairs, isTurnStart, type ThreadMessage } from '@compactor/core';

export interface DropOldestOptions {
  /** Where a cut may fall: before any message, or only before a real user message (whole turns). */
  cutAt: 'any-message' | 'turn-start';
  /** Whether the selection fits (the caller renders and counts it). */
  fits: (selection: ThreadMessage[]) => boolean;
}

/**
 * Drop the oldest messages until the rest fits: the smallest cut that fits, found by binary search
 * (more dropped never costs more). A kept message whose tool-call partner was cut goes too, so the
 * selection never holds half a tool pair. Returns everything when it already fits, nothing when no
 * cut fits.
 */
export function dropOldestUntilFits(
  messages: readonly ThreadMessage[],
  options: DropOldestOptions,
): ThreadMessage[] {
  const pairs = buildToolPairIndex(messages);
  const cuts: number[] = [];
  for (let index = 0; index < messages.length; index += 1) {
    if (options.cutAt === 'any-message' || index === 0 || isTurnStart(messages[index]!)) cuts.push(index);
  }
  cuts.push(messages.length);
  const selectionAt = (cut: number): ThreadMessage[] => {
    const dropped = closeOverToolPairs(
      messages.slice(0, cut).map((message) => message.id),
      pairs,
    );
    return messages.slice(cut).filter((message) => !dropped.has(message.id));
  };
  if (options.fits(selectionAt(0))) return [...messages];
  let low = 0;
  let high = cuts.length - 1;
  // Invariant: cuts[low] does not fit; cuts[high] fits or is the empty selection.
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (options.fits(selectionAt(cuts[middle]!))) high = middle;
    else low = middle;
  }
  return selectionAt(cuts[high]!);
}
