import { extractiveAnswer } from '@/modules/assistant/tutor/local/extractive-tutor';
import { generateQuiz } from '@/modules/assistant/tutor/local/quiz-generator';
import { parseQuizMessages } from '@/modules/assistant/tutor/prompts/quiz-prompt';
import { parseTutorMessages } from '@/modules/assistant/tutor/prompts/tutor-prompt';
import {
  type AiProvider,
  AiProviderError,
  type ChatChunk,
  type ChatRequest,
  ClientGone,
  estimateTokens,
} from './ai-provider';

export const LOCAL_MODEL = 'local-extractive-1';

/**
 * The local provider (extensions-v2 23.1): needs nothing, downloads nothing and always works. It reads the
 * structured prompts this service builds (a tutor answer or a quiz proposal) and answers deterministically with the
 * extractive tutor or the quiz generator. Tokens are estimated (`ceil(UTF-8 bytes / 4)`): for an answer, the question
 * and the passages it quotes in, the answer out (extensions-v2 28).
 */
export class LocalProvider implements AiProvider {
  readonly name = 'local' as const;
  readonly model = LOCAL_MODEL;

  async *chat(req: ChatRequest): AsyncIterable<ChatChunk> {
    const stopIfGone = (): void => {
      if (req.signal.aborted) throw req.signal.reason instanceof Error ? req.signal.reason : new ClientGone();
    };
    stopIfGone();
    if (req.json) {
      const quiz = parseQuizMessages(req.messages);
      if (!quiz) throw new AiProviderError('provider', 'The local provider only answers the prompts of this service.');
      const text = JSON.stringify({ questions: generateQuiz(quiz) });
      yield { type: 'delta', text };
      yield {
        type: 'usage',
        input_tokens: estimateTokens(quiz.chunks.map((c) => c.text).join('\n')),
        output_tokens: estimateTokens(text),
      };
      yield { type: 'finish', reason: 'stop' };
      return;
    }
    const prompt = parseTutorMessages(req.messages);
    if (!prompt) throw new AiProviderError('provider', 'The local provider only answers the prompts of this service.');
    const answer = extractiveAnswer(prompt);
    let output = '';
    for (const [i, line] of answer.lines.entries()) {
      // Give the event loop a turn between lines, so a disconnect is noticed mid-answer.
      await new Promise<void>((resolve) => setImmediate(resolve));
      stopIfGone();
      const text = i < answer.lines.length - 1 ? `${line}\n` : line;
      output += text;
      yield { type: 'delta', text };
    }
    yield { type: 'usage', input_tokens: estimateTokens(answer.input), output_tokens: estimateTokens(output) };
    yield { type: 'finish', reason: 'stop' };
  }
}
