/** The reward of a step, broken into its named parts, so a person sees why it was given. */
import type { RewardComponents } from '../../env/rewards.ts';

function signed(x: number): string {
  return `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(3)}`;
}

export function RewardParts({ components, reward, episodeReturn }: { components: RewardComponents; reward: number; episodeReturn?: number }) {
  return (
    <dl className="reward-parts" aria-label="Reward">
      <div>
        <dt>correctness</dt>
        <dd>{signed(components.correctness)}</dd>
      </div>
      <div>
        <dt>progress</dt>
        <dd>{signed(components.progress)}</dd>
      </div>
      <div>
        <dt>operational</dt>
        <dd>{signed(components.operational)}</dd>
      </div>
      <div className="total">
        <dt>reward</dt>
        <dd>{signed(reward)}</dd>
      </div>
      {episodeReturn !== undefined && (
        <div className="total">
          <dt>return</dt>
          <dd>{episodeReturn.toFixed(3)}</dd>
        </div>
      )}
    </dl>
  );
}
