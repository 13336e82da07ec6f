/**
 * The reward of a step, broken into its named parts, and the equation that makes them add up on screen:
 * "reward +0.220 = 1 × correctness 0.000 + 0.2 × progress 1.000 + 1 × operational 0.020". Each figure carries a
 * tooltip from the glossary. The weights are the environment's defaults unless the caller passes the run's own; a
 * reward computed with other weights shows no equation rather than a wrong one (see reward-terms.ts).
 */
import { DEFAULT_ENV_CONFIG } from '../../env/types.ts';
import type { RewardComponents, RewardWeights } from '../../env/rewards.ts';
import { tip } from '../help/glossary.ts';
import { plain, rewardEquation, signed } from './reward-terms.ts';
import './reward-parts.css';

export interface RewardPartsProps {
  components: RewardComponents;
  reward: number;
  episodeReturn?: number;
  /** The weights the reward was computed with (default: the environment's). */
  weights?: RewardWeights;
}

export function RewardParts({ components, reward, episodeReturn, weights = DEFAULT_ENV_CONFIG.weights }: RewardPartsProps) {
  const equation = rewardEquation(components, weights, reward);
  return (
    <div className="reward-block">
      <dl className="reward-parts" aria-label="Reward">
        <div title={tip('correctness')}>
          <dt>correctness</dt>
          <dd>{signed(components.correctness)}</dd>
        </div>
        <div title={tip('progress')}>
          <dt>progress</dt>
          <dd>{signed(components.progress)}</dd>
        </div>
        <div title={tip('operational')}>
          <dt>operational</dt>
          <dd>{signed(components.operational)}</dd>
        </div>
        <div className="total" title={tip('reward')}>
          <dt>reward</dt>
          <dd>{signed(reward)}</dd>
        </div>
        {episodeReturn !== undefined && (
          <div className="total" title={tip('episodeReturn')}>
            <dt>return</dt>
            <dd>{plain(episodeReturn)}</dd>
          </div>
        )}
      </dl>
      {equation !== null && (
        <p className="reward-equation">
          reward {signed(reward)} = {equation}
        </p>
      )}
    </div>
  );
}
