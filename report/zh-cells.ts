// The cells of the bench's and the fault lab's tables in Chinese, for the twins under docs/zh-CN/
// and the Chinese halves of the reports. The bench writes its cells in English (report/bench/format.ts:
// "OVERSOLD 20", "exact ✓"); a Chinese page shows the same cells in Chinese, with every figure kept
// and in its place. A cell this file does not know stays as it is, never wrong.
/** Fixed cell texts of the bench and fault tables, whole or in part. */
const CELL_RULES: readonly [RegExp, string][] = [
  [/^OVERSOLD (.+)$/, '超卖 $1'],
  [/^undersold (\d+)\+$/, '少卖 $1+'],
  [/^(\d+) \((\d+) unanswered\)$/, '$1（$2 个未响应）'],
  [/^(-?\d+) \((\d+) deducted unsold\)$/, '$1（$2 件已扣减未售出）'],
  [/, cut at (\d+) s/, '，$1 秒时截断'],
  [/, (\d+) outcome unknown/, '，$1 个结果未知'],
  [/, (\d+) undocumented/, '，$1 个文档之外的响应'],
  [/ \(undocumented\)/g, '（文档之外）'],
  [/^exact ✓$/, '准确 ✓'],
  [/^oversells ✓$/, '超卖 ✓'],
  [/^exact ✗ \(unexpected\)$/, '准确 ✗（与预期不符）'],
  [/^oversells ✗ \(unexpected\)$/, '超卖 ✗（与预期不符）'],
  [/^n\/a \(no \/sales\)$/, '不适用（没有 /sales）'],
  [/^wrk not installed$/, '未安装 wrk'],
];

/** A bench or fault table cell in Chinese; the figures, names and error codes stay as they are. */
export function zhCell(cell: string): string {
  return CELL_RULES.reduce((text, [re, to]) => text.replace(re, to), cell);
}
