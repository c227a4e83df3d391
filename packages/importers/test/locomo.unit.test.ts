import { describe, expect, it } from 'vitest';
import { importTranscript, listConversations } from '../src/index.js';
import { readFixture } from './support/fixtures.js';
import { expectValidThread, messageById, messagesOf } from './support/thread-invariants.js';

const text = () => readFixture('locomo/samples.json');

describe('locomo importer', () => {
  it('lists the samples as conversations', () => {
    expect(listConversations(text()).map((conversation) => conversation.id)).toEqual(['demo-1', 'demo-2']);
  });

  it('maps speaker A to the user and B to the assistant, with dia ids kept', () => {
    const imported = importTranscript({ text: text() });
    expect(imported.format).toBe('locomo');
    expectValidThread(imported);
    const turns = messagesOf(imported).filter((message) => !message.synthetic);
    expect(turns.map((message) => [message.id, message.role, message.metadata?.diaId])).toEqual([
      ['dia-D1-1', 'user', 'D1:1'],
      ['dia-D1-2', 'assistant', 'D1:2'],
      ['dia-D1-3', 'user', 'D1:3'],
      ['dia-D2-1', 'assistant', 'D2:1'],
      ['dia-D2-2', 'user', 'D2:2'],
    ]);
    expect(imported.stats.userTurns).toBe(3);
  });

  it('opens each session with its date, and dates its turns', () => {
    const imported = importTranscript({ text: text() });
    expect(messageById(imported, 'locomo-session-2')).toMatchObject({
      role: 'user',
      synthetic: true,
      createdAt: '2023-03-10T16:30:00.000Z',
      content: [{ type: 'text', text: '[Session 2 began at 4:30 pm on 10 March, 2023]' }],
    });
    expect(messageById(imported, 'dia-D1-1').createdAt).toBe('2023-03-03T09:15:00.000Z');
    expect(imported.events[0]!.timestamp).toBe('2023-03-03T09:15:00.000Z');
  });

  it('carries a shared photo as a URL image part and its caption as metadata', () => {
    const turn = messageById(importTranscript({ text: text() }), 'dia-D1-3');
    expect(turn.content).toEqual([
      { type: 'text', text: 'Her name is Pixel.' },
      {
        type: 'image',
        mediaType: 'image/jpeg',
        source: { kind: 'url', url: 'https://example.com/photos/cat.jpg' },
      },
    ]);
    expect(turn.metadata?.blipCaption).toBe('a photo of a cat on a sofa');
  });

  it('returns every QA item as a probe with normalized evidence', () => {
    const imported = importTranscript({ text: text() });
    expect(imported.probes).toEqual([
      {
        id: 'demo-1-qa-0',
        question: "What is the name of Ana's cat?",
        answer: 'Pixel',
        evidence: ['D1:3'],
        evidenceMessageIds: ['dia-D1-3'],
        category: 1,
      },
      {
        id: 'demo-1-qa-1',
        question: 'When did Ana adopt the cat?',
        answer: '2023',
        evidence: ['D1:1', 'D2:2'],
        evidenceMessageIds: ['dia-D1-1', 'dia-D2-2'],
        category: 2,
      },
      {
        id: 'demo-1-qa-2',
        question: "What is Ben's dog called?",
        adversarialAnswer: 'Rex',
        evidence: [],
        evidenceMessageIds: [],
        category: 5,
      },
      {
        id: 'demo-1-qa-3',
        question: 'Where does Pixel sit?',
        answer: 'By the window',
        evidence: ['D2:2', 'D2:1', 'D9:9'],
        evidenceMessageIds: ['dia-D2-2', 'dia-D2-1'],
        category: 4,
      },
    ]);
    expect(imported.warnings).toEqual([
      'question 2: dropped malformed evidence "D"',
      'question 3: evidence D9:9 names no turn of the conversation',
    ]);
  });

  it('imports the second sample on request', () => {
    const imported = importTranscript({ text: text() }, { conversation: 1 });
    expect(imported.conversationId).toBe('demo-2');
    expect(messageById(imported, 'dia-D1-1').role).toBe('assistant');
    expect(imported.probes).toHaveLength(1);
  });
});
