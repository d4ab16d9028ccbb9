// What Firecrawl's build (tsc) needs to know of the stand-in in index.mjs: the names Firecrawl
// imports from @mendable/firecrawl-rs. The two functions written here are typed as the Rust
// declares them (crawler.rs FilterUrlCall, FilterUrlResult); the others only fail, so their
// types are left open.

export interface FilterUrlCall {
  href: string;
  url: string;
  baseUrl: string;
  excludes: string[];
  ignoreRobotsTxt: boolean;
  robotsTxt: string;
  robotsUserAgent?: string;
  allowExternalContentLinks: boolean;
  allowSubdomains: boolean;
}

export interface FilterUrlResult {
  allowed: boolean;
  url?: string;
  denialReason?: string;
}

export declare function filterUrl(call: FilterUrlCall): Promise<FilterUrlResult>;
export declare function postProcessMarkdown(markdown: string): Promise<string>;

export type ParsedSitemap = any;
export type SitemapProcessingResult = any;
export type EngpickerUrlResult = any;
/** Imported by a test of Firecrawl's, which its build compiles too. */
export type TransformHtmlOptions = any;

export declare function filterLinks(...args: any[]): Promise<any>;
export declare function extractLinks(...args: any[]): Promise<string[]>;
export declare function extractBaseHref(...args: any[]): Promise<string>;
export declare function extractMetadata(...args: any[]): Promise<any>;
export declare function transformHtml(...args: any[]): Promise<string>;
export declare function getInnerJson(...args: any[]): Promise<string>;
export declare function extractAttributes(...args: any[]): Promise<any>;
export declare function extractImages(...args: any[]): Promise<string[]>;
export declare function parseSitemapXml(...args: any[]): Promise<ParsedSitemap>;
export declare function processSitemap(...args: any[]): Promise<SitemapProcessingResult>;
export declare function computeEngpickerVerdict(...args: any[]): Promise<any>;
export declare function processPdf(...args: any[]): any;
export declare function detectPdf(...args: any[]): any;
export declare function convertDocumentToMarkdown(...args: any[]): string;
