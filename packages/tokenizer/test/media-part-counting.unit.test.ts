import { describe, expect, it } from 'vitest';
import { createTokenizer, documentPageTokensByProvider, imageTokensByProvider } from '../src/index.js';

const gpt4o = createTokenizer({ model: 'gpt-4o' });
const claude = createTokenizer({ model: 'claude-sonnet-4-5' });
const pdfBase64 = Buffer.from(
  '%PDF-1.7\n<< /Type /Page >>\n<< /Type /Page >>\n<< /Type /Pages /Count 2 >>',
  'latin1',
).toString('base64');
const picture = 'https://example.com/photo-of-a-dog.jpg';

describe('one media part of a request (ADR-0470)', () => {
  it('counts an OpenAI image part at the per-image estimate, not as its URL', () => {
    const part = { type: 'image_url', image_url: { url: picture } };
    expect(gpt4o.countMediaPart(part, 'openai-chat')).toBe(imageTokensByProvider.openai);
    expect(gpt4o.countMediaPart({ type: 'input_image', image_url: picture }, 'openai-responses')).toBe(
      imageTokensByProvider.openai,
    );
  });

  it('is what the request counter adds for the part inside a message', () => {
    const withPicture = (content: unknown[]) => ({ messages: [{ role: 'user', content }] });
    const text = { type: 'text', text: 'What is in this picture?' };
    const image = { type: 'image_url', image_url: { url: picture } };
    expect(
      gpt4o.countRequest(withPicture([text, image]), 'openai-chat') -
        gpt4o.countRequest(withPicture([text]), 'openai-chat'),
    ).toBe(gpt4o.countMediaPart(image, 'openai-chat'));
    const block = { type: 'image', source: { type: 'url', url: picture } };
    const anthropic = (content: unknown[]) => ({ messages: [{ role: 'user', content }] });
    expect(
      claude.countRequest(anthropic([text, block]), 'anthropic') -
        claude.countRequest(anthropic([text]), 'anthropic'),
    ).toBe(claude.countMediaPart(block, 'anthropic'));
  });

  it("counts Anthropic images and documents at Claude's estimates, a PDF by its pages", () => {
    expect(claude.countMediaPart({ type: 'image', source: { type: 'url', url: picture } }, 'anthropic')).toBe(
      imageTokensByProvider.anthropic,
    );
    const pdf = {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: pdfBase64 },
    };
    expect(claude.countMediaPart(pdf, 'anthropic')).toBe(2 * documentPageTokensByProvider.anthropic);
    expect(claude.countMediaPart({ type: 'image', image: picture, mediaType: 'image/jpeg' }, 'ai-sdk')).toBe(
      imageTokensByProvider.anthropic,
    );
  });

  it('is undefined for a part that is not media in the format', () => {
    expect(gpt4o.countMediaPart({ type: 'text', text: 'hi' }, 'openai-chat')).toBeUndefined();
    // An Anthropic image block is no OpenAI Chat part.
    expect(
      gpt4o.countMediaPart({ type: 'image', source: { type: 'url', url: picture } }, 'openai-chat'),
    ).toBe(undefined);
    expect(gpt4o.countMediaPart('image_url', 'openai-chat')).toBeUndefined();
    expect(() => gpt4o.countMediaPart({ type: 'image' }, 'gemini' as never)).toThrow(/unknown provider/);
  });
});
