/** @type {import('next').NextConfig} */
// pg as a plain Node module, as in the service's next.config.mjs.
const nextConfig = { poweredByHeader: false, serverExternalPackages: ["pg"] };
export default nextConfig;
