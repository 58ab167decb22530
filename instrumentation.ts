// Runs once when a gateway server process starts: background work of the instance.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startBackground } = await import("./server/background");
  startBackground();
}
