/**
 * Browser entry: mounts the React app into `#root`. Nothing else happens here; the app shell lives in src/ui.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './ui/App.tsx';
import './ui/theme.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element to mount the app into.');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
