// Types for the parts of @echogarden/espeak-ng-emscripten (espeak-ng compiled by Emscripten) that
// local-node/espeak.ts uses. The package ships no declarations.
declare module "@echogarden/espeak-ng-emscripten" {
  export type ESpeakEvent = { type: string; text_position: number; word_length: number; audio_position: number; id?: string | number };
  export interface ESpeakNGWorker {
    /** espeak_SetVoiceByName: "en-us", "en-us+f3" (language + variant); 0 when it succeeded. */
    set_voice(name: string, language?: string): number;
    /** Words per minute, 80..450. */
    set_rate(wpm: number): void;
    set_pitch(pitch: number): void;
    get_samplerate(): number;
    list_voices(): { name: string; identifier: string; languages: { priority: number; name: string }[] }[];
    /** Synchronous; calls back with 16-bit mono samples. Returning true aborts the synthesis. */
    synthesize(text: string, callback: (samples: Int16Array, events: ESpeakEvent[]) => boolean): void;
  }
  export interface ESpeakModule {
    eSpeakNGWorker: new () => ESpeakNGWorker;
  }
  const createModule: (options?: Record<string, unknown>) => Promise<ESpeakModule>;
  export default createModule;
}
