export default function Home() {
  return (
    <main>
      <h1>Lead Intake API</h1>
      <p>
        Integrations create sales leads with <code>POST /api/leads</code>. See the <a href="/docs">API documentation</a>
        .
      </p>
    </main>
  );
}
