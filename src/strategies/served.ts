// What GET /strategies answers for one strategy: its declaration as the catalog holds it, the human
// text (description, course label) in the language asked for. The fault lab builds its cases from it.
import type { Lang } from '../lang.js';
import { courseLabel, type Strategy } from './strategy.js';

export function servedStrategy({ name, family, course, description, expected, stores, sql, sqlFenced, guard, pausePoints, faultLab }: Strategy, lang: Lang) {
  return {
    name,
    family,
    course: courseLabel(course)[lang],
    description: description[lang],
    expected,
    stores,
    ...(guard?.fencing && { fencing: guard.fencing }),
    ...(sql && { sql }),
    ...(sqlFenced && { sqlFenced }),
    ...(pausePoints && { pausePoints }),
    ...(faultLab && { faultLab }),
  };
}
