/** The Compare view. */
export default function CompareView() {
  return <h2>Compare</h2>;
}
