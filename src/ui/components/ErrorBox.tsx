/** A problem said plainly, with what to do about it when we know. */
export function ErrorBox({ title, message, children }: { title: string; message: string; children?: React.ReactNode }) {
  return (
    <div className="error" role="alert">
      <h2>{title}</h2>
      <p>{message}</p>
      {children}
    </div>
  );
}
