/**
 * Weighted linear least squares by the normal equations (a handful of features, thousands of
 * rows: well conditioned enough, and dependency-free). Columns that are zero in every row get
 * coefficient `undefined` instead of making the system singular.
 */
export function weightedLeastSquares(
  rows: readonly (readonly number[])[],
  targets: readonly number[],
  weights: readonly number[],
): (number | undefined)[] {
  const width = rows[0]?.length ?? 0;
  const active = Array.from({ length: width }, (_, column) => rows.some((row) => (row[column] ?? 0) !== 0));
  const columns = active.flatMap((isActive, column) => (isActive ? [column] : []));
  const size = columns.length;
  const matrix = Array.from({ length: size }, () => new Array<number>(size).fill(0));
  const vector = new Array<number>(size).fill(0);
  rows.forEach((row, rowIndex) => {
    const weight = weights[rowIndex] ?? 1;
    const target = targets[rowIndex] ?? 0;
    for (let a = 0; a < size; a++) {
      const valueA = row[columns[a]!] ?? 0;
      vector[a]! += weight * valueA * target;
      for (let b = 0; b < size; b++) matrix[a]![b]! += weight * valueA * (row[columns[b]!] ?? 0);
    }
  });
  const solution = solve(matrix, vector);
  const coefficients = new Array<number | undefined>(width).fill(undefined);
  columns.forEach((column, index) => {
    coefficients[column] = solution[index];
  });
  return coefficients;
}

/**
 * Least squares with every coefficient ≥ 0: while a coefficient is negative, the most negative
 * one is pinned to 0 and the rest refitted (an active-set loop; exact for the few features here).
 */
export function nonNegativeLeastSquares(
  rows: readonly (readonly number[])[],
  targets: readonly number[],
  weights: readonly number[],
): (number | undefined)[] {
  const width = rows[0]?.length ?? 0;
  const pinned = new Set<number>();
  for (;;) {
    const masked = rows.map((row) => row.map((value, column) => (pinned.has(column) ? 0 : value)));
    const coefficients = weightedLeastSquares(masked, targets, weights);
    let worst = -1;
    for (let column = 0; column < width; column++) {
      const value = coefficients[column];
      if (value !== undefined && value < 0 && (worst < 0 || value < (coefficients[worst] ?? 0)))
        worst = column;
    }
    if (worst < 0) {
      return coefficients.map((value, column) => (pinned.has(column) ? 0 : value));
    }
    pinned.add(worst);
  }
}

function solve(matrix: number[][], vector: number[]): number[] {
  const size = vector.length;
  for (let pivot = 0; pivot < size; pivot++) {
    let best = pivot;
    for (let row = pivot + 1; row < size; row++) {
      if (Math.abs(matrix[row]![pivot]!) > Math.abs(matrix[best]![pivot]!)) best = row;
    }
    [matrix[pivot], matrix[best]] = [matrix[best]!, matrix[pivot]!];
    [vector[pivot], vector[best]] = [vector[best]!, vector[pivot]!];
    const divisor = matrix[pivot]![pivot]!;
    if (Math.abs(divisor) < 1e-12) continue;
    for (let row = pivot + 1; row < size; row++) {
      const factor = matrix[row]![pivot]! / divisor;
      for (let column = pivot; column < size; column++)
        matrix[row]![column]! -= factor * matrix[pivot]![column]!;
      vector[row]! -= factor * vector[pivot]!;
    }
  }
  const solution = new Array<number>(size).fill(0);
  for (let row = size - 1; row >= 0; row--) {
    const divisor = matrix[row]![row]!;
    if (Math.abs(divisor) < 1e-12) continue;
    let sum = vector[row]!;
    for (let column = row + 1; column < size; column++) sum -= matrix[row]![column]! * solution[column]!;
    solution[row] = sum / divisor;
  }
  return solution;
}
