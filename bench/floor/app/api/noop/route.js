// The framework floor: a route handler that does nothing, served by `next start`
// like the service. Built only by `npm run bench`, never part of the app.
export async function GET() {
  return Response.json({}, { headers: { "Cache-Control": "no-store" } });
}

export async function POST() {
  return Response.json({}, { status: 201, headers: { "Cache-Control": "no-store" } });
}
