import { extractiveAnswer } from './extractive-tutor';

describe('local extractive tutor (extensions-v2 23.3)', () => {
  const passages = [
    {
      n: 1,
      text: '## Listas\n\nPython tiene varios tipos. Una **lista** es una secuencia mutable de elementos. Las listas se escriben entre corchetes. El texto sigue aquí.',
    },
    { n: 2, text: 'Las tuplas son inmutables. Una tupla no cambia. Nada que ver con la pregunta.' },
    { n: 3, text: 'Un diccionario guarda pares.' },
    { n: 4, text: 'Una lista de la compra no es Python.' },
  ];

  it('quotes up to 2 best sentences of each of the 3 best passages, in order, with markers, in the course language', () => {
    const answer = extractiveAnswer({ courseLanguage: 'es', passages, question: '¿Qué es una LISTA mutable?' });
    expect(answer.lines).toEqual([
      'Esto es lo que dice el curso sobre tu pregunta:',
      // Only exact words count ("listas" is not "lista"): one sentence of the first passage scores.
      '- Una lista es una secuencia mutable de elementos. [1]',
      // Two sentences tie with one word each ("una", "que"): both, in their order.
      '- Una tupla no cambia. Nada que ver con la pregunta. [2]',
      // No sentence contains a question word: the passage is quoted by its first sentence.
      '- Un diccionario guarda pares. [3]',
      '(Respuesta extractiva: citas literales del curso, sin IA generativa.)',
    ]);
    // Input counted for the estimate: the question and the passages quoted (not the fourth).
    expect(answer.input).toContain('¿Qué es una LISTA mutable?');
    expect(answer.input).not.toContain('compra');
  });

  it('keeps the original order of the chosen sentences and prefers the higher score', () => {
    const answer = extractiveAnswer({
      courseLanguage: 'en',
      passages: [
        { n: 1, text: 'Loops repeat code. A for loop walks a list. A while loop checks a condition. Loops end.' },
      ],
      question: 'How does a while loop check its condition?',
    });
    expect(answer.lines[1]).toBe('- A for loop walks a list. A while loop checks a condition. [1]');
    expect(answer.lines[0]).toBe('Here is what the course says about your question:');
    expect(answer.lines.at(-1)).toBe('(Extractive answer: verbatim quotes from the course, no generative AI.)');
  });

  it('is deterministic', () => {
    const a = extractiveAnswer({ courseLanguage: 'es', passages, question: 'lista' });
    const b = extractiveAnswer({ courseLanguage: 'es', passages, question: 'lista' });
    expect(a).toEqual(b);
  });
});
