/** The Play view. */
export default function PlayView() {
  return <h2>Play</h2>;
}
