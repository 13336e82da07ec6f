/** The Evaluate view. */
export default function EvaluateView() {
  return <h2>Evaluate</h2>;
}
