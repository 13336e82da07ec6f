/** The Data view. */
export default function DataView() {
  return <h2>Data</h2>;
}
