// How local-moderation reads a term of obscenity's English dataset: which of OpenAI's categories
// it counts toward and with what score. The terms and their matching (leetspeak, repeated and
// separated letters, whitelisted look-alikes such as "Scunthorpe") are the library's; this table
// only sorts them. It is keyed by the library's own list of terms, so a version of the dataset
// that adds one does not compile until the new term is sorted here.
import type { EnglishProfaneWord } from "obscenity";

export type TermKind = "slur" | "insult" | "profanity" | "vulgar" | "sexual_explicit" | "sexual_term" | "sexual_violence";

/**
 * The score each kind gives its categories. A category is flagged at 0.5 or more: slurs, insults,
 * profanity, explicit sexual terms and sexual violence flag; words that are sexual but common in
 * neutral text ("sex", "penis", "orgasm") only raise the sexual score. These are fixed values
 * of a word match, not probabilities from a trained model.
 */
export const KIND_SCORES: Record<TermKind, Partial<Record<"harassment" | "hate" | "sexual" | "violence", number>>> = {
  slur: { hate: 0.9, harassment: 0.7 },
  insult: { harassment: 0.7 },
  profanity: { harassment: 0.6 },
  vulgar: { harassment: 0.6, sexual: 0.4 },
  sexual_explicit: { sexual: 0.85 },
  sexual_term: { sexual: 0.3 },
  sexual_violence: { sexual: 0.8, violence: 0.8 },
};

export const TERM_KINDS: Record<EnglishProfaneWord, TermKind> = {
  // Slurs against a group (race, ethnicity, sexuality, gender identity, disability): hate.
  abeed: "slur",
  abo: "slur",
  africoon: "slur",
  arabush: "slur",
  boonga: "slur",
  chingchong: "slur",
  chink: "slur",
  dyke: "slur",
  fag: "slur",
  kike: "slur",
  negro: "slur",
  nigger: "slur",
  retard: "slur",
  spastic: "slur",
  tranny: "slur",
  // Insults aimed at a person.
  bastard: "insult",
  bitch: "insult",
  cuck: "insult",
  cunt: "insult",
  slut: "insult",
  whore: "insult",
  // Profanity, whoever it is aimed at.
  arse: "profanity",
  ass: "profanity",
  bollocks: "profanity",
  fuck: "profanity",
  piss: "profanity",
  shit: "profanity",
  turd: "profanity",
  wank: "profanity",
  // Vulgar names of genitals, used as insults as often as not.
  cock: "vulgar",
  dick: "vulgar",
  prick: "vulgar",
  pussy: "vulgar",
  twat: "vulgar",
  // Explicit sexual terms.
  anal: "sexual_explicit",
  bestiality: "sexual_explicit",
  blowjob: "sexual_explicit",
  buttplug: "sexual_explicit",
  cum: "sexual_explicit",
  deepthroat: "sexual_explicit",
  dildo: "sexual_explicit",
  doggystyle: "sexual_explicit",
  "double penetration": "sexual_explicit",
  ejaculate: "sexual_explicit",
  felch: "sexual_explicit",
  fellatio: "sexual_explicit",
  "finger bang": "sexual_explicit",
  fisting: "sexual_explicit",
  gangbang: "sexual_explicit",
  handjob: "sexual_explicit",
  hentai: "sexual_explicit",
  incest: "sexual_explicit",
  "jerk off": "sexual_explicit",
  jizz: "sexual_explicit",
  lubejob: "sexual_explicit",
  masturbate: "sexual_explicit",
  orgy: "sexual_explicit",
  porn: "sexual_explicit",
  // Sexual words that neutral text uses too (biology, health, news).
  anus: "sexual_term",
  boob: "sexual_term",
  hooker: "sexual_term",
  orgasm: "sexual_term",
  penis: "sexual_term",
  scat: "sexual_term",
  semen: "sexual_term",
  sex: "sexual_term",
  tit: "sexual_term",
  vagina: "sexual_term",
  // Sexual violence.
  rape: "sexual_violence",
};
