/**
 * The live charts of the run on screen: generation speed while the run works (from its progress events, so the first
 * point comes within seconds of the first tokens, long before a step ends: live-speed.ts), each reward component and the weighted total per step, the loss, success
 * on the train and eval samples (one chart, from the evaluations), tokens per second, seconds per step (rollout vs
 * update) and GPU memory in use; above them the latest figures and the ETA. The summary names whose reward and
 * success it shows (the model's rollouts, or in SFT the Oracle's demonstrations) beside the model's own success in
 * the last evaluation (run-summary.ts). Series are module constants, so each
 * chart is built once and only appended to (LiveChart.tsx).
 */
import type { EvalPoint, StepMetrics } from '../../train/types.ts';
import { duration, percent } from '../evaluate/figures.ts';
import { useThemeColors } from '../evaluate/useThemeColors.ts';
import { formatBytes } from '../../model/cache.ts';
import { useStore } from '../store/store.ts';
import { LiveChart, type Series } from './LiveChart.tsx';
import type { SpeedPoint } from './live-speed.ts';
import { runEtaText } from './run-headline.ts';
import { modelEvaluationFigure, stepEpisodesFigure } from './run-summary.ts';
import type { TrainPhase } from '../../workers/train-protocol.ts';
import { tip } from '../help/glossary.ts';
import { InfoTip } from '../components/InfoTip.tsx';

const stepOf = (row: { step: number }): number => row.step;

const REWARD: ReadonlyArray<Series<StepMetrics>> = [
  { label: 'total', color: 'accent', value: (m) => m.reward.total },
  { label: 'correctness', color: 'good', value: (m) => m.reward.correctness },
  { label: 'progress', color: 'warn', value: (m) => m.reward.progress, dashed: true },
  { label: 'operational', color: 'bad', value: (m) => m.reward.operational, dashed: true },
];
const LOSS: ReadonlyArray<Series<StepMetrics>> = [{ label: 'loss', color: 'accent', value: (m) => m.loss }];
const SUCCESS: ReadonlyArray<Series<EvalPoint>> = [
  { label: 'train', color: 'accent', value: (p) => p.trainSuccess * 100 },
  { label: 'eval', color: 'good', value: (p) => p.evalSuccess * 100, dashed: true },
];
const SPEED: ReadonlyArray<Series<StepMetrics>> = [{ label: 'tokens/s', color: 'accent', value: (m) => m.tokensPerSecond }];
const TIME: ReadonlyArray<Series<StepMetrics>> = [
  { label: 'rollout', color: 'accent', value: (m) => m.seconds.rollout },
  { label: 'update', color: 'warn', value: (m) => m.seconds.update },
  { label: 'total', color: 'muted', value: (m) => m.seconds.total, dashed: true },
];
const LIVE_SPEED: ReadonlyArray<Series<SpeedPoint>> = [{ label: 'tokens/s', color: 'accent', value: (p) => p.tokensPerSecond }];
const secondsOf = (p: SpeedPoint): number => p.seconds;
const MEMORY: ReadonlyArray<Series<StepMetrics>> = [{ label: 'MB', color: 'accent', value: (m) => (m.gpuBytes === null ? null : m.gpuBytes / 1e6) }];

/** The step's optimizer and GRPO details, those it has. */
function details(m: StepMetrics): string {
  const parts = [`grad norm ${m.gradNorm.toPrecision(3)}`, `lr ${m.lr.toPrecision(3)}`, `${m.microBatches} micro-batch${m.microBatches === 1 ? '' : 'es'}`, `${m.generatedTokens} of ${m.tokens} tokens generated`];
  if (m.zeroVarianceGroups !== undefined) parts.push(`${m.zeroVarianceGroups} group${m.zeroVarianceGroups === 1 ? '' : 's'} with equal rewards (no gradient)`);
  if (m.clipFraction !== undefined) parts.push(`clipped ${percent(m.clipFraction)}`);
  if (m.kl !== undefined) parts.push(`KL ${m.kl.toPrecision(3)}`);
  if (m.logprobGap !== undefined) parts.push(`sampler/trainer log-prob gap ${m.logprobGap.toExponential(1)}`);
  return `Step ${m.step}: ${parts.join(' · ')}.`;
}

function Figures({ last, lastEval, totalSteps, phase }: { last: StepMetrics; lastEval: EvalPoint | undefined; totalSteps: number; phase: TrainPhase }) {
  const episodes = stepEpisodesFigure(last);
  const model = modelEvaluationFigure(lastEval);
  return (
    <>
      <dl className="figures train-figures" aria-label="Latest step">
        <div>
          <dt>
            step<InfoTip topic="the step">{tip('trainStep')}</InfoTip>
          </dt>
          <dd>
            {last.step} of {totalSteps}
          </dd>
        </div>
        <div>
          <dt>
            {episodes.term}
            <InfoTip topic={episodes.term}>{episodes.hint}</InfoTip>
          </dt>
          <dd>{episodes.value}</dd>
        </div>
        <div>
          <dt>
            {model.term}
            <InfoTip topic={model.term}>{model.hint}</InfoTip>
          </dt>
          <dd>{model.value}</dd>
        </div>
        <div>
          <dt>
            loss<InfoTip topic="the loss">{tip('trainLoss')}</InfoTip>
          </dt>
          <dd>{last.loss.toFixed(4)}</dd>
        </div>
        <div>
          <dt>
            tokens/s<InfoTip topic="tokens per second">{tip('tokensPerSecond')}</InfoTip>
          </dt>
          <dd>{last.tokensPerSecond.toFixed(1)}</dd>
        </div>
        <div>
          <dt>time per step</dt>
          <dd>{duration(last.seconds.total * 1000)}</dd>
        </div>
        <div>
          <dt>
            ETA<InfoTip topic="the ETA">{tip('eta')}</InfoTip>
          </dt>
          <dd>{runEtaText(last.step, last.etaSeconds, totalSteps, phase)}</dd>
        </div>
        <div>
          <dt>
            GPU memory<InfoTip topic="GPU memory">{tip('gpuMemory')}</InfoTip>
          </dt>
          <dd>{last.gpuBytes === null ? 'n/a' : formatBytes(last.gpuBytes)}</dd>
        </div>
      </dl>
      {last.algo === 'sft' && (
        <p className="meta">
          SFT imitates the Oracle’s demonstrations: the reward and success above are the Oracle’s, not the model’s. The model’s own success comes from the evaluations (the Success rate chart).
        </p>
      )}
      <p className="meta">{details(last)}</p>
    </>
  );
}

export function TrainCharts() {
  const run = useStore((s) => s.trainRun);
  const colors = useThemeColors();
  if (!run) return null;
  const { metrics, evals } = run;
  const last = metrics.at(-1);
  const grpo = run.algo === 'grpo';
  return (
    <section className="panel train-charts" aria-label="Charts">
      <h3>Charts</h3>
      {last ? <Figures last={last} lastEval={evals.at(-1)} totalSteps={run.totalSteps} phase={run.phase} /> : <p className="meta">The first step’s figures appear when it ends.</p>}
      <div className="train-chart-grid">
        <LiveChart title="Generation speed while it runs" rows={run.speed} x={secondsOf} xTitle="seconds since start" series={LIVE_SPEED} yTitle="tokens/s" digits={1} colors={colors} />
        <LiveChart title={grpo ? 'Reward per step' : 'Oracle demonstrations’ reward per step'} rows={metrics} x={stepOf} series={REWARD} yTitle="mean reward" colors={colors} />
        <LiveChart title="Loss" rows={metrics} x={stepOf} series={LOSS} yTitle={grpo ? 'policy loss per token' : 'NLL per token'} digits={4} colors={colors} />
        <LiveChart title="Success rate (train vs eval)" rows={evals} x={stepOf} series={SUCCESS} yTitle="success (%)" digits={0} yMax={100} colors={colors} />
        <LiveChart title="Tokens per second" rows={metrics} x={stepOf} series={SPEED} yTitle="tokens/s" digits={1} colors={colors} />
        <LiveChart title="Seconds per step" rows={metrics} x={stepOf} series={TIME} yTitle="seconds" digits={2} colors={colors} />
        <LiveChart title="GPU memory in use" rows={metrics} x={stepOf} series={MEMORY} yTitle="MB" digits={1} colors={colors} />
      </div>
    </section>
  );
}
