// A fresh clone has no `.next/cache` yet: that notice of `next build` is about the machine, not the code.
export const ABOUT_THE_MACHINE = /No build cache found/;
