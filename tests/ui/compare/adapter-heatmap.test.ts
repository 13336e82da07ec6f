/**
 * What the adapter heat map shows (src/ui/compare/adapter-heatmap.ts): the adapter a policy name plays with, tokens
 * with visible whitespace, the colour of a delta (side by sign, strength by |delta| over the scale), and the words
 * beside each action, checked against values worked out by hand; and the component's markup (rendered on the server:
 * the project has no DOM test library) for a hand-made explanation and for the cases where nothing can be shown.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { EpisodeExplanation } from '../../../src/eval/explain.ts';
import { AdapterHeatmapResult, AdapterHeatmaps } from '../../../src/ui/compare/AdapterHeatmap.tsx';
import { actionSummary, adapterOfPolicy, deltaColor, deltaScale, signedNats, tokenDescription, visibleToken } from '../../../src/ui/compare/adapter-heatmap.ts';
import { record, step } from './records.ts';

describe('adapterOfPolicy', () => {
  it.each([
    ['qwen+grpo-run', 'grpo-run'],
    ['qwen+a+b', 'a+b'],
    ['qwen', null],
    ['qwen+', null],
    ['oracle', null],
    ['qwen-tjs', null],
  ])('%s → %s', (policy, id) => expect(adapterOfPolicy(policy)).toBe(id));
});

describe('visibleToken', () => {
  it.each([
    [' the', '·the'],
    ['\n', '↵'],
    ['  ', '··'],
    ['a b', 'a b'],
    ['\t', '⇥'],
    ['', '∅'],
    ['SELECT', 'SELECT'],
  ])('%j → %j', (text, shown) => expect(visibleToken(text)).toBe(shown));
});

describe('deltaColor and deltaScale', () => {
  it('colours likelier tokens blue and less likely ones orange, strongest at the scale', () => {
    expect(deltaColor(2, 2)).toBe('rgba(37, 99, 235, 0.850)');
    expect(deltaColor(-2, 2)).toBe('rgba(234, 88, 12, 0.850)');
    expect(deltaColor(1, 2)).toBe('rgba(37, 99, 235, 0.425)');
    expect(deltaColor(-0.5, 2)).toBe('rgba(234, 88, 12, 0.212)');
    expect(deltaColor(5, 2)).toBe('rgba(37, 99, 235, 0.850)'); // past the scale: the strongest colour, no more
    expect(deltaColor(0, 2)).toBe('transparent');
    expect(deltaColor(Number.NaN, 2)).toBe('transparent');
  });

  it('scales to the largest |delta|, never below the floor', () => {
    expect(deltaScale([0.1, -0.7, 0.3])).toBe(0.7);
    expect(deltaScale([0.01, -0.02])).toBe(0.05);
    expect(deltaScale([Number.NaN, -3])).toBe(3);
    expect(deltaScale([])).toBe(0.05);
  });
});

describe('the words', () => {
  it('says a sum in nats and as a factor', () => {
    expect(signedNats(0.12)).toBe('+0.120');
    expect(signedNats(-1.5)).toBe('−1.500');
    // exp(ln 2) = 2: twice as likely; exp(−ln 4) = 1/4: four times less likely.
    expect(actionSummary({ base: -3, adapter: -3 + Math.LN2, delta: Math.LN2, tokens: [1, 2] })).toBe('+0.693 nats over 2 tokens (log p -3.00 → -2.31): the reply is 2.00× likelier with the adapter');
    expect(actionSummary({ base: -1, adapter: -1 - 2 * Math.LN2, delta: -2 * Math.LN2, tokens: [1] })).toContain('−1.386 nats over 1 token (');
    expect(actionSummary({ base: -1, adapter: -1 - 2 * Math.LN2, delta: -2 * Math.LN2, tokens: [1] })).toContain('4.00× less likely');
  });

  it('describes a token with its probabilities before and after', () => {
    // log 0.5 → log 0.25: 50.0% → 25.0%.
    const text = tokenDescription({ text: ' id', base: Math.log(0.5), adapter: Math.log(0.25), delta: Math.log(0.5) });
    expect(text).toBe('" id": p 50.0% → 25.0% (log p -0.693 → -1.386, −0.693 nats, less likely with the adapter)');
  });
});

describe('the rendered heat map (server-rendered markup)', () => {
  const explanation: EpisodeExplanation = {
    policy: 'qwen+trained',
    questionId: 'q1',
    seed: 3,
    tokens: 3,
    base: -4,
    adapter: -2,
    delta: 2,
    actions: [
      {
        step: 0,
        actionText: 'DESCRIBE singer',
        base: -3,
        adapter: -1,
        delta: 2,
        recordedTokens: null,
        tokens: [
          { id: 1, text: 'desc', base: -1, adapter: -0.5, delta: 0.5 },
          { id: 2, text: '\n', base: -2, adapter: -0.5, delta: 1.5 },
        ],
      },
      { step: 1, actionText: 'ANSWER 3', base: -1, adapter: -1, delta: 0, recordedTokens: 2, tokens: [{ id: 3, text: ' 3', base: -1, adapter: -1, delta: 0 }] },
    ],
  };

  it('shows each action with its sum and each token coloured by its delta, strongest at the largest', () => {
    const html = renderToStaticMarkup(createElement(AdapterHeatmapResult, { explanation, adapter: 'trained' }));
    expect(html.match(/class="heatmap-action"/g)).toHaveLength(2);
    expect(html.match(/class="heatmap-token"/g)).toHaveLength(3);
    expect(html).toContain('+2.000 nats in all');
    expect(html).toContain('background:rgba(37, 99, 235, 0.850)'); // the 1.5-nat newline: the largest
    expect(html).toContain('background:rgba(37, 99, 235, 0.283)'); // 0.5 / 1.5 of the strongest
    expect(html).toContain('>↵</span>');
    expect(html).toContain('The model generated 2 tokens; its text encodes to the 1 scored here.');
    expect(html).toContain(escapeHtml(tokenDescription(explanation.actions[0].tokens[1])));
  });

  it('shows nothing for episodes no model played, and says what is missing without a model', () => {
    const none = renderToStaticMarkup(createElement(AdapterHeatmaps, { sides: [{ side: 'A', record: record('q1', true) }] }));
    expect(none).toBe('');
    const model = record('q1', true, { policy: 'qwen+trained', transcript: [{ ...step('ANSWER 1'), rawText: '<tool_call>…' }] });
    const html = renderToStaticMarkup(createElement(AdapterHeatmaps, { sides: [{ side: 'A', record: record('q1', true) }, { side: 'B', record: model }] }));
    expect(html.match(/class="adapter-heatmap-side"/g)).toHaveLength(1);
    expect(html).toContain('Load the base model this adapter was trained on');
  });
});

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
