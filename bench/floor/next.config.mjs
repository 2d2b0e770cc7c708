/** @type {import('next').NextConfig} */
// pg as a plain Node module, as in the service's next.config.mjs.
export default { poweredByHeader: false, serverExternalPackages: ["pg"] };
