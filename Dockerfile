# Quill: wallet API + worker. Runs the TypeScript sources with tsx (no build step), as `npm start` does. The image
# holds the wallet and its @quill/canton workspace only: the sandbox (packages/sandbox) is a development dependency
# and is not copied, so `quill serve --demo|--sandbox` and `quill sandbox` say it is not installed.
FROM node:20.20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/canton/package.json ./packages/canton/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY packages/canton/src ./packages/canton/src
COPY src ./src
COPY tsconfig.json ./
RUN mkdir -p /app/keys && chown -R node:node /app/keys && chmod 0700 /app/keys
USER node
ENV KEYS_DIR=/app/keys PORT=8080
EXPOSE 8080
VOLUME ["/app/keys"]
HEALTHCHECK --interval=15s --timeout=3s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/quill.js"]
CMD ["serve"]
