/**
 * Full-text `expressions`: `expressions[<group>][<i>][word]`, with `[options][includes]` (default
 * true; false = the word must not appear) and `[options][strict]` (default false; true = whole
 * words only, otherwise the word is a prefix, so `travau` finds `travaux`).
 *
 * Every condition of a group must hold and the property matches when any group holds. Words are
 * folded as text-normalization.ts folds them: case and accents do not matter, spelling does (no
 * fuzziness, no stemming). A word of several tokens ("salle de bain", "rez-de-ch") is a phrase: its
 * tokens must follow each other in one text, and only its last token may be a prefix.
 *
 * The searched texts are the titles and descriptions of the property and of each of its adverts;
 * a phrase never spans two of them.
 */
import { type PropertyDocument, type Violation } from '@immo/contracts';
import { isPlainObject } from '@immo/runtime';
import type { ExpressionCondition, ExpressionGroup } from './criteria';
import { MAX_EXPRESSION_WORD_LENGTH } from './limits';
import { isContainer, listItems } from './list-items';
import { booleanValue, isBlank, readValue, textValue } from './query-values';
import { tokenize } from './text-normalization';

export { normalizeText, tokenize } from './text-normalization';

export interface ParsedExpressions {
  groups: ExpressionGroup[];
  violations: Violation[];
}

/** Reads the bracket-parsed `expressions` value; empty groups are dropped. */
export function parseExpressions(raw: unknown, path = 'expressions'): ParsedExpressions {
  const violations: Violation[] = [];
  const groups: ExpressionGroup[] = [];
  if (isBlank(raw)) return { groups, violations };
  if (!isContainer(raw)) return { groups, violations: [{ propertyPath: path, message: `must be given as ${path}[<group>][<index>][word]=<word>` }] };
  const groupItems = listItems(raw, path);
  if (!groupItems.ok) return { groups, violations: [{ propertyPath: path, message: groupItems.message }] };
  for (const groupItem of groupItems.value) {
    if (!isContainer(groupItem.value)) {
      violations.push({ propertyPath: groupItem.path, message: `must be a list of words such as ${groupItem.path}[0][word]=<word>` });
      continue;
    }
    const conditionItems = listItems(groupItem.value, groupItem.path);
    if (!conditionItems.ok) {
      violations.push({ propertyPath: groupItem.path, message: conditionItems.message });
      continue;
    }
    const group: ExpressionGroup = [];
    for (const item of conditionItems.value) {
      const condition = parseCondition(item.value, item.path, violations);
      if (condition !== undefined) group.push(condition);
    }
    if (group.length > 0) groups.push(group);
  }
  return { groups, violations };
}

function parseCondition(raw: unknown, path: string, violations: Violation[]): ExpressionCondition | undefined {
  if (!isPlainObject(raw)) {
    violations.push({ propertyPath: path, message: `must be a word condition such as ${path}[word]=value` });
    return undefined;
  }
  const word = readWord(raw['word'], `${path}[word]`, violations);
  const options = raw['options'];
  if (!isBlank(options) && !isPlainObject(options)) {
    violations.push({ propertyPath: `${path}[options]`, message: `must hold ${path}[options][includes] and/or [strict]` });
    return undefined;
  }
  const given = isPlainObject(options) ? options : {};
  const includes = readOption(given['includes'], `${path}[options][includes]`, true, violations);
  const strict = readOption(given['strict'], `${path}[options][strict]`, false, violations);
  if (word === undefined || includes === undefined || strict === undefined) return undefined;
  return { word, includes, strict };
}

function readWord(raw: unknown, path: string, violations: Violation[]): string | undefined {
  if (isBlank(raw)) {
    violations.push({ propertyPath: path, message: 'is required' });
    return undefined;
  }
  const text = readValue(textValue, raw);
  if (!text.ok) {
    violations.push({ propertyPath: path, message: text.message });
    return undefined;
  }
  if (text.value.length > MAX_EXPRESSION_WORD_LENGTH) {
    violations.push({ propertyPath: path, message: `must be at most ${MAX_EXPRESSION_WORD_LENGTH} characters` });
    return undefined;
  }
  if (tokenize(text.value).length === 0) {
    violations.push({ propertyPath: path, message: 'must contain a letter or a digit' });
    return undefined;
  }
  return text.value;
}

function readOption(raw: unknown, path: string, defaultValue: boolean, violations: Violation[]): boolean | undefined {
  if (isBlank(raw)) return defaultValue;
  const value = readValue(booleanValue, raw);
  if (value.ok) return value.value;
  violations.push({ propertyPath: path, message: value.message });
  return undefined;
}

/** The texts `expressions` search, in a fixed order: the property's, then each advert's. */
export function searchableTexts(doc: PropertyDocument): string[] {
  return [doc.title, doc.description, ...doc.adverts.flatMap((advert) => [advert.title, advert.description])];
}

/** True when there are no groups, or when every condition of some group holds. */
export function matchesExpressions(groups: readonly ExpressionGroup[], texts: readonly string[]): boolean {
  if (groups.length === 0) return true;
  const tokenizedTexts = texts.map(tokenize);
  return groups.some((group) => group.every((condition) => wordAppears(condition, tokenizedTexts) === condition.includes));
}

/** Whether the condition's word (or phrase) appears in one of the tokenized texts; `includes` aside. */
export function wordAppears(condition: Pick<ExpressionCondition, 'word' | 'strict'>, tokenizedTexts: readonly (readonly string[])[]): boolean {
  const words = tokenize(condition.word);
  return tokenizedTexts.some((tokens) => containsPhrase(tokens, words, condition.strict));
}

function containsPhrase(tokens: readonly string[], words: readonly string[], strict: boolean): boolean {
  if (words.length === 0) return false;
  for (let start = 0; start + words.length <= tokens.length; start++) {
    if (words.every((word, i) => tokenMatches(tokens[start + i] as string, word, strict || i < words.length - 1))) return true;
  }
  return false;
}

function tokenMatches(token: string, word: string, whole: boolean): boolean {
  return whole ? token === word : token.startsWith(word);
}
