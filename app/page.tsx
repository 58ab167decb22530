export default function Home() {
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", maxWidth: 640, margin: "4rem auto", padding: "0 1rem" }}>
      <h1>Model Gateway</h1>
      <p>
        An OpenAI-compatible gateway. Point any OpenAI client at <code>/v1</code> with a workspace API key.
      </p>
      <ul>
        <li>
          <a href="/health">/health</a>: liveness
        </li>
        <li>
          <code>GET /v1/models</code>: the model catalog with prices
        </li>
        <li>
          <code>GET /v1/network/status</code>: nodes and regions online
        </li>
      </ul>
    </main>
  );
}
