/**
 * A DESCRIBE result: columns with types and keys, then foreign keys. Names come from the database (a free-play file
 * may hold anything), so each is clipped like a result cell.
 */
import type { TableInfo } from '../../sql/types.ts';
import { clipText, DISPLAY_LIMITS } from './cell-display.ts';
import { ClippedText } from './ClippedText.tsx';
import { plural } from './plural.ts';
import './result-table.css';

export function TableSchema({ table }: { table: TableInfo }) {
  const name = clipText(table.name, DISPLAY_LIMITS.cellChars);
  return (
    <div className="result-table">
      <table>
        <caption>
          {name.shown}
          {name.cut && '…'} <span className="meta">({plural(table.rowCount, 'row')})</span>
        </caption>
        <thead>
          <tr>
            <th scope="col">column</th>
            <th scope="col">type</th>
            <th scope="col">key</th>
          </tr>
        </thead>
        <tbody>
          {table.columns.map((c, i) => (
            <tr key={i}>
              <td>
                <ClippedText text={c.name} />
              </td>
              <td>
                <ClippedText text={c.type} />
              </td>
              <td>
                <ClippedText text={[c.primaryKey > 0 ? 'primary key' : '', c.notNull ? 'not null' : '', ...table.foreignKeys.filter((f) => f.column === c.name).map((f) => `→ ${f.refTable}.${f.refColumn ?? ''}`)].filter(Boolean).join(', ')} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
