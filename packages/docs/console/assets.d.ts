// The console's stylesheet is bundled as text (esbuild's text loader) and added to the page by the script.
declare module "*.css" {
  const text: string;
  export default text;
}
