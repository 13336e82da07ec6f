/** The Watch view. */
export default function WatchView() {
  return <h2>Watch</h2>;
}
