/**
 * The SQL editor: CodeMirror 6 with SQLite highlighting, completion of the episode's tables and columns, and
 * Ctrl/Cmd+Enter to run the query. Loaded on its own (React.lazy), so the question card shows before the editor's
 * code arrives.
 *
 * How to think about it: CodeMirror owns the document. The editor is created once per mount (the view remounts it
 * for each episode, keyed by episode id) from the store's `playSql`, and mirrors every change back into it for the
 * Query button. The schema arrives after the episode starts, so completion sits in a compartment reconfigured when
 * it lands. Token colours are classes (`tok-keyword`…) styled in play.css from theme variables, so light and dark
 * both read well. Tab is left to the browser (it moves focus), so the editor is no keyboard trap. The completion list
 * closes whenever a query is sent (the store's busy step turns to QUERY), whichever way it was sent.
 */
import { autocompletion, closeBrackets, closeBracketsKeymap, closeCompletion, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { SQLite, sql } from '@codemirror/lang-sql';
import { bracketMatching, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightSpecialChars, keymap, lineNumbers, placeholder } from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';
import { useEffect, useRef } from 'react';
import type { PlayBusy } from '../store/play-slice.ts';
import { useStore } from '../store/store.ts';
import { bareWordSource, completionSchema, keywordOption } from './completion.ts';

const theme = EditorView.theme({
  '&': { backgroundColor: 'var(--bg)', color: 'var(--fg)', border: '1px solid var(--border)', borderRadius: '6px', fontSize: '0.9rem' },
  '&.cm-focused': { outline: '2px solid var(--accent)', outlineOffset: '1px' },
  '.cm-scroller': { fontFamily: "ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace", minHeight: '7rem', maxHeight: '20rem' },
  '.cm-content': { caretColor: 'var(--fg)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--fg)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection': {
    backgroundColor: 'var(--play-selection)',
  },
  '.cm-gutters': { backgroundColor: 'var(--panel)', color: 'var(--muted)', borderRight: '1px solid var(--border)', borderRadius: '6px 0 0 6px' },
  '.cm-activeLine': { backgroundColor: 'var(--play-active-line)' },
  '.cm-placeholder': { color: 'var(--muted)' },
  '.cm-matchingBracket': { backgroundColor: 'var(--play-selection)', outline: 'none' },
  '.cm-tooltip': { backgroundColor: 'var(--panel)', color: 'var(--fg)', border: '1px solid var(--border)', borderRadius: '6px' },
  '.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: 'var(--accent)', color: 'var(--bg)' },
  '.cm-completionDetail': { color: 'inherit', opacity: '0.75' },
});

/** SQLite with completion: the schema's tables and `table.` columns, every column for a bare word, demoted keywords. */
function sqlLanguage(tables: Parameters<typeof completionSchema>[0]) {
  return [
    sql({ dialect: SQLite, schema: completionSchema(tables), upperCaseKeywords: true, keywordCompletion: keywordOption }),
    SQLite.language.data.of({ autocomplete: bareWordSource(tables) }),
  ];
}

const sendingQuery = (busy: PlayBusy | null): boolean => busy?.kind === 'step' && busy.action === 'QUERY';

/** Runs the query from the keyboard; the store ignores it while a step runs. */
const runQuery = (): boolean => {
  void useStore.getState().playQuery();
  return true;
};

export default function SqlEditor() {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const language = useRef(new Compartment());
  const tables = useStore((s) => s.playSchema?.tables ?? null);

  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: useStore.getState().playSql,
        extensions: [
          Prec.highest(keymap.of([{ key: 'Mod-Enter', run: runQuery, preventDefault: true }])),
          keymap.of([...closeBracketsKeymap, ...completionKeymap, ...historyKeymap, ...defaultKeymap]),
          history(),
          lineNumbers(),
          highlightSpecialChars(),
          drawSelection(),
          highlightActiveLine(),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          autocompletion({ icons: false }),
          syntaxHighlighting(classHighlighter),
          language.current.of(sqlLanguage(useStore.getState().playSchema?.tables ?? null)),
          placeholder('SELECT … — Ctrl/Cmd+Enter runs it'),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': 'SQL query' }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) useStore.getState().setPlaySql(update.state.doc.toString());
          }),
          theme,
        ],
      }),
    });
    view.current = editor;
    // A query on its way, however it was sent (Ctrl/Cmd+Enter, or the Query button, which not every browser focuses
    // on a click or tap, so the editor need not lose focus): the completion list closes, as it would offer words for
    // a statement already sent.
    const unsubscribe = useStore.subscribe((s, before) => {
      if (sendingQuery(s.playBusy) && !sendingQuery(before.playBusy)) closeCompletion(editor);
    });
    return () => {
      unsubscribe();
      editor.destroy();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    view.current?.dispatch({ effects: language.current.reconfigure(sqlLanguage(tables)) });
  }, [tables]);

  return <div ref={host} className="play-editor" />;
}
