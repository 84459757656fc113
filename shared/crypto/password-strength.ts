import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary as commonWords } from '@zxcvbn-ts/language-common';
import { dictionary as englishWords, translations } from '@zxcvbn-ts/language-en';

// Built once per container: loading the dictionaries is most of the cost of a check.
const zxcvbn = new ZxcvbnFactory({
  dictionary: { ...commonWords, ...englishWords },
  graphs: adjacencyGraphs,
  translations,
});

/**
 * zxcvbn's estimate: score 0–4, log10 of the guesses, and the time to guess it online (an attacker
 * throttled to 100 guesses an hour) and offline (a slow hash, 10 000 guesses a second).
 */
export function passwordStrength(password: string, userInputs: readonly string[] = []) {
  const result = zxcvbn.check(password, [...userInputs]);
  return {
    score: result.score,
    guessesLog10: result.guessesLog10,
    crackTimeSeconds: {
      online: result.crackTimes.onlineThrottlingXPerHour.seconds,
      offline: result.crackTimes.offlineSlowHashingXPerSecond.seconds,
    },
    warning: result.feedback.warning ?? '',
    suggestions: result.feedback.suggestions,
  };
}
