/** A DESCRIBE result: columns with types and keys, then foreign keys. */
import type { TableInfo } from '../../sql/types.ts';

export function TableSchema({ table }: { table: TableInfo }) {
  return (
    <div className="result-table">
      <table>
        <caption>
          {table.name} <span className="meta">({table.rowCount} rows)</span>
        </caption>
        <thead>
          <tr>
            <th scope="col">column</th>
            <th scope="col">type</th>
            <th scope="col">key</th>
          </tr>
        </thead>
        <tbody>
          {table.columns.map((c) => (
            <tr key={c.name}>
              <td>{c.name}</td>
              <td>{c.type}</td>
              <td>{[c.primaryKey > 0 ? 'primary key' : '', c.notNull ? 'not null' : '', ...table.foreignKeys.filter((f) => f.column === c.name).map((f) => `→ ${f.refTable}.${f.refColumn ?? ''}`)].filter(Boolean).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
