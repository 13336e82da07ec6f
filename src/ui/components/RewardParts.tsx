/**
 * The reward of a step, broken into its named parts, and the equation that makes them add up on screen:
 * "reward +0.220 = 1 × correctness 0.000 + 0.2 × progress 1.000 + 1 × operational 0.020". What the parts mean (the
 * glossary's words) is behind one InfoTip per step, which touch screens and keyboards reach too. The weights are the environment's defaults unless the caller passes the run's own; a
 * reward computed with other weights shows no equation rather than a wrong one (see reward-terms.ts).
 */
import { DEFAULT_ENV_CONFIG } from '../../env/types.ts';
import type { RewardComponents, RewardWeights } from '../../env/rewards.ts';
import { tip } from '../help/glossary.ts';
import { InfoTip } from './InfoTip.tsx';
import { plain, rewardEquation, signed } from './reward-terms.ts';
import './reward-parts.css';

export interface RewardPartsProps {
  components: RewardComponents;
  reward: number;
  episodeReturn?: number;
  /** The weights the reward was computed with (default: the environment's). */
  weights?: RewardWeights;
}

/** The glossary's words on each figure of the block. */
function RewardGlossary({ withReturn }: { withReturn: boolean }) {
  const keys = ['correctness', 'progress', 'operational', 'reward', ...(withReturn ? (['episodeReturn'] as const) : [])] as const;
  return (
    <>
      {keys.map((k) => (
        <span key={k} className="reward-glossary-line">
          {tip(k)}
        </span>
      ))}
    </>
  );
}

export function RewardParts({ components, reward, episodeReturn, weights = DEFAULT_ENV_CONFIG.weights }: RewardPartsProps) {
  const equation = rewardEquation(components, weights, reward);
  const glossary = (
    <InfoTip topic="the reward parts">
      <RewardGlossary withReturn={episodeReturn !== undefined} />
    </InfoTip>
  );
  return (
    <div className="reward-block">
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
            <dd>{plain(episodeReturn)}</dd>
          </div>
        )}
      </dl>
      {/* The "?" follows the equation on its line (outside its text, which reads as the sum alone). */}
      <div className="reward-equation-row">
        {equation !== null && (
          <p className="reward-equation">
            reward {signed(reward)} = {equation}
          </p>
        )}
        {glossary}
      </div>
    </div>
  );
}
