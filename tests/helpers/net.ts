export { freePort } from "@/scripts/process-group";
