/** The Data view's last message, shown in the part of the view it is about (an error as an alert), dismissable. */
import { ErrorBox } from '../components/ErrorBox.tsx';
import type { DataMessage } from '../store/data-slice.ts';
import { useStore } from '../store/store.ts';

export function DataMessageBox({ where }: { where: DataMessage['where'] }) {
  const message = useStore((s) => (s.dataMessage?.where === where ? s.dataMessage : null));
  const dismiss = useStore((s) => s.dismissDataMessage);
  if (!message) return null;
  const close = (
    <button type="button" onClick={dismiss}>
      Dismiss
    </button>
  );
  return message.kind === 'error' ? (
    <ErrorBox title={message.title} message={message.text}>
      {close}
    </ErrorBox>
  ) : (
    <div className="info-message" role="status">
      <h4>{message.title}</h4>
      <p>{message.text}</p>
      {close}
    </div>
  );
}
