/**
 * Free play on a person's own SQLite file: choose or drop one file, and it opens in the Play view as a dataset of
 * its own (kept in this browser). There is no question and no gold answer, so no correctness reward: the page says
 * so before the file is chosen. A file that is not SQLite, or is damaged, gives a message and changes nothing.
 */
import { suggestDatasetName } from '../../data/dataset-store.ts';
import { navigate } from '../router.ts';
import { useStore } from '../store/store.ts';
import { DataMessageBox } from './DataMessageBox.tsx';
import { DropZone } from './DropZone.tsx';
import type { GivenSelection } from './given-files.ts';
import { useTakenNames } from './useTakenNames.ts';

export function FreePlayOpen() {
  const opening = useStore((s) => s.freePlayOpening);
  const open = useStore((s) => s.openForFreePlay);
  const showMessage = useStore((s) => s.showDataMessage);
  const taken = useTakenNames();

  const onGiven = async (selection: GivenSelection) => {
    if (selection.files.length !== 1) {
      showMessage({ kind: 'error', where: 'free-play', title: 'Open one SQLite file', text: `${selection.files.length} files were given (${selection.label}); free play opens one database file. To import a Spider folder, use Import Spider above.` });
      return;
    }
    const [file] = selection.files;
    const name = suggestDatasetName(file.path.split('/').pop() ?? file.path, taken);
    const opened = await open(name, file);
    // Its own link (`free=`), so the file never becomes the app-wide dataset that Train, Evaluate and Watch use.
    if (opened) navigate('play', { free: opened });
  };

  return (
    <section className="panel data-section" aria-labelledby="free-play-heading">
      <h3 id="free-play-heading">Free play on your own SQLite file</h3>
      <p>
        Open any SQLite database (<code>.sqlite</code>, <code>.db</code>, …) and explore it with Describe, Sample and Query. <strong>There is no question and no gold answer, so there is no correctness reward</strong> (and no progress reward): only the small reward for new information and the penalties for errors and repeats. It stays in this browser; nothing is uploaded.
      </p>
      <DropZone
        name="SQLite file for free play"
        prompt={opening ? `Opening ${opening}…` : 'Drop a SQLite file here, or'}
        inputs={[{ label: 'Choose a SQLite file' }]}
        disabled={opening !== null}
        onGiven={(selection) => void onGiven(selection)}
      />
      <DataMessageBox where="free-play" />
    </section>
  );
}
