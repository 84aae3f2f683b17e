/**
 * The text a memory is found by — embedded for k-NN and tokenised for keyword search: the
 * question it answers (when known) followed by its content.
 */
export function searchableText(memory: { query: string | null; content: string }): string {
  return memory.query ? `${memory.query}\n${memory.content}` : memory.content;
}
