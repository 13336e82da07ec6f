/**
 * Tie links (src/data/tie-links.ts): a question whose gold has ties is joined with every question of its database
 * that may share one of its legal results, and with no other. Expected pairs are written out by hand.
 */
import { describe, expect, it } from 'vitest';
import { tieLinks, type TieInput } from '../../src/data/tie-links.ts';

// "Which airline has the most flights?": three airlines tie at the top, LIMIT 1 kept 'United'.
const mostFlights: TieInput = {
  dbId: 'flights',
  goldRows: [['United']],
  goldTies: { segments: [{ take: 1, pool: [['United'], ['Delta'], ['JetBlue']] }] },
};

describe('tieLinks', () => {
  it('joins a tie question with a question whose gold is one of its legal results, in any spelling the verifier equates', () => {
    const qs: TieInput[] = [mostFlights, { dbId: 'flights', goldRows: [['  delta ']] }, { dbId: 'flights', goldRows: [['Alaska']] }];
    expect(tieLinks(qs)).toEqual([[0, 1]]);
  });

  it('does not join across databases, nor results of another size or shape', () => {
    const qs: TieInput[] = [
      mostFlights,
      { dbId: 'other', goldRows: [['Delta']] },
      { dbId: 'flights', goldRows: [['Delta'], ['JetBlue']] },
      { dbId: 'flights', goldRows: [['Delta', 'JetBlue'], ['United', 'Alaska']] },
    ];
    expect(tieLinks(qs)).toEqual([]);
  });

  it('joins a one-row result with the one-column legal result holding the same cells (the verifier reads both as a list)', () => {
    const twoCheapest: TieInput = {
      dbId: 'shop',
      goldRows: [['pen'], ['cup']],
      goldTies: { segments: [{ take: 1, pool: [['pen']] }, { take: 1, pool: [['cup'], ['mug']] }] },
    };
    expect(tieLinks([twoCheapest, { dbId: 'shop', goldRows: [['mug', 'pen']] }])).toEqual([[0, 1]]);
    expect(tieLinks([twoCheapest, { dbId: 'shop', goldRows: [['mug', 'bowl']] }])).toEqual([]);
    // The rule is a necessary condition, so it may join more than the verifier would accept: 'mug' and 'cup' are both
    // in the pools though no legal result holds both. Joining more only keeps more questions together.
    expect(tieLinks([twoCheapest, { dbId: 'shop', goldRows: [['mug', 'cup']] }])).toEqual([[0, 1]]);
  });

  it('joins two tie questions whose legal results overlap though neither stored gold is the other’s', () => {
    const a: TieInput = { dbId: 'd', goldRows: [[1]], goldTies: { segments: [{ take: 1, pool: [[1], [2]] }] } };
    const b: TieInput = { dbId: 'd', goldRows: [[3]], goldTies: { segments: [{ take: 1, pool: [[2], [3]] }] } };
    const c: TieInput = { dbId: 'd', goldRows: [[4]], goldTies: { segments: [{ take: 1, pool: [[4], [5]] }] } };
    expect(tieLinks([a, b, c])).toEqual([[0, 1]]);
  });

  it('reads rows of several columns as rows, column order ignored', () => {
    const topTwo: TieInput = {
      dbId: 'd',
      goldRows: [['a', 1], ['b', 1]],
      goldTies: { segments: [{ take: 2, pool: [['a', 1], ['b', 1], ['c', 1]] }] },
    };
    const qs: TieInput[] = [topTwo, { dbId: 'd', goldRows: [[1, 'c'], [1, 'a']] }, { dbId: 'd', goldRows: [['c', 1], ['d', 1]] }];
    expect(tieLinks(qs)).toEqual([[0, 1]]);
  });

  it('considers only the questions `include` accepts', () => {
    const qs: TieInput[] = [mostFlights, { dbId: 'flights', goldRows: [['Delta']] }];
    expect(tieLinks(qs, (q) => q.goldTies === undefined)).toEqual([]);
  });
});
